"""Pace: what goes on between mails. Its report keys are handed down to pbem/outbound/reports.py
here, so that the layer below never imports this one."""
from pbem.outbound import reports
from pbem.pace import standing

reports.pace_keys = standing.report_keys
