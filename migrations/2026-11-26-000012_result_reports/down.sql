DROP TABLE result_reports;
