DELETE FROM result_reports WHERE reported_by_user IS NULL;
ALTER TABLE result_reports ALTER COLUMN reported_by_user SET NOT NULL;
