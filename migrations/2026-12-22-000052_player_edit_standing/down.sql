DROP FUNCTION tourney_creator_answers_for(BIGINT, BIGINT);
