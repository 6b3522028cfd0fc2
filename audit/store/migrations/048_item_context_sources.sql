-- A passage, dialogue, table or other text a question refers to (AGIEval's
-- `passage`, CLIcK's `paragraph`, RACE's `article`) is part of the item:
-- stored beside the stem, shown above it, exported and given to judges.
-- NULL when the item has none.
ALTER TABLE questions ADD COLUMN context VARCHAR;
-- The script of each option (ISO 15924, parallel to `options`), when an
-- option is written in a script other than the stem's (a Chinese saying with
-- Tibetan, Uyghur or Mongolian options); NULL when every option reads in the
-- stem's script.  An option without letters has NULL in the list.
ALTER TABLE questions ADD COLUMN option_scripts VARCHAR[];
-- Where each item of a question file was read from: the file's own name (an
-- archive member: archive/member) and the record's position in it, from 0.
-- An item's id depends on these alone (audit/ingest/_questions.py), so an
-- import that would store a known record under another id is refused.
-- No primary key (a million-item import builds no second index); the
-- importer replaces the rows of the ids it writes.
CREATE TABLE item_sources (
    benchmark   VARCHAR NOT NULL,
    question_id VARCHAR NOT NULL,
    source_file VARCHAR NOT NULL,
    record_row  BIGINT NOT NULL
);
