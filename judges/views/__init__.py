"""The judges pages: rubrics and the runs made from them, setting up rubrics and judge
configurations, judging a session, and the tool catalogue."""
