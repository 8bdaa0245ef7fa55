"""Pace: what goes on between mails (deadlines, standing orders, vacations, and the playing of
moves they follow). A report's deadline and standing-order lines are pace's: whoever queues a
report hands in `reported.part` (pbem/outbound/reports.py `PacePart`), not a callback set on import."""
