DROP TABLE case_events;
DROP TABLE votes;
DROP TABLE case_panel;
DROP TABLE case_parties;
DROP TABLE cases;
