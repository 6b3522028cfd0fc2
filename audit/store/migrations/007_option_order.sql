-- Per-model option order.  When a model was shown an item's
-- options in its own order, the importer maps the letter it wrote back to
-- the item's labels (predictions.answer) and keeps the letter as written
-- here, with the order it was shown (item labels in shown order, e.g. 'CADB':
-- shown A was the item's C).  Only remapped predictions have a row.
-- A separate table (not a predictions column) so that rows without a
-- remapping cost nothing and positional INSERTs into predictions still work.
CREATE TABLE prediction_written (
    benchmark   VARCHAR NOT NULL,
    question_id VARCHAR NOT NULL,
    model       VARCHAR NOT NULL,
    run         VARCHAR NOT NULL DEFAULT 'default',
    written     VARCHAR,              -- the letter(s) as the model wrote them (NULL when none)
    shown_order VARCHAR NOT NULL      -- item labels in the order shown to the model
);
