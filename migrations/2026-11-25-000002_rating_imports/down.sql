DELETE FROM rating_changes WHERE kind = 'import';
ALTER TABLE rating_changes DROP CONSTRAINT rating_changes_kind_check;
ALTER TABLE rating_changes ADD CONSTRAINT rating_changes_kind_check CHECK (kind IN ('game', 'bonus'));
ALTER TABLE rating_changes DROP COLUMN games;
DROP TABLE rating_import_rows;
DROP TABLE rating_imports;
