-- The duplicate-option lint's cheap first pass (two options whose
-- texts are equal once whitespace is deleted) is a property of the question
-- alone, yet analyze recomputed it over every option of the benchmark on
-- every run (a tenth of a second at 100,000 questions).  It is now computed
-- once, where questions are written, and stored.  The rule lives in one
-- place, the macro below: the importer's INSERT calls it (audit/ingest/_store.py)
-- and the lint falls back to it for a row whose flag is NULL
-- (audit/analyze/_tiers.py).  The exact comparison (runs of whitespace
-- collapsed, ends trimmed) stays in the lint, on the few flagged questions.
-- Deleting only spaces first when an option has no tab, newline, carriage
-- return or form feed: four byte searches are cheaper than four copies.
CREATE OR REPLACE MACRO options_may_repeat(options) AS (
    list_unique([CASE WHEN contains(o.text, chr(9)) OR contains(o.text, chr(10)) OR contains(o.text, chr(13))
                           OR contains(o.text, chr(12))
                      THEN replace(replace(replace(replace(replace(o.text, ' ', ''), chr(9), ''),
                                   chr(10), ''), chr(13), ''), chr(12), '')
                      ELSE replace(o.text, ' ', '') END FOR o IN options]) < len(options)
);
ALTER TABLE questions ADD COLUMN options_may_repeat BOOLEAN;  -- two options equal once whitespace is deleted: the duplicate-option lint compares them exactly (macro options_may_repeat)
UPDATE questions SET options_may_repeat = options_may_repeat(options);
