-- One source for who is a lead reviewer: once a database has accounts, the
-- lead reviewers are the enabled accounts with the 'lead' role
-- (audit/accounts/leads.py); the stored lead list is read only by a
-- database without accounts.  Before, a name on that list was a lead even
-- when its account said 'reviewer', so the admin page showed the list and
-- the role apart, one of them wrong.  The accounts the list promoted keep
-- what they could do: their role becomes 'lead' here (names compare by
-- their case-folded key, as accounts.name_key).
UPDATE accounts SET role = 'lead'
WHERE role = 'reviewer' AND name_key IN (
    SELECT lower(trim(x)) FROM (
        SELECT unnest(from_json(value, '["VARCHAR"]')) AS x FROM review_settings WHERE name = 'leads'));
