"""Dates and times the one way the admin says them (lps_site.admin_formatting.DATE_FORMAT: 2026-12-02 15:04),
in place of the English locale's "Dec. 2, 2026, 3:04 p.m." that Django's own admin columns would show."""

DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y-m-d H:i"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
TIME_FORMAT = "H:i"
