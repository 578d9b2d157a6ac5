"""Template filters every template has (settings.TEMPLATES' builtins): prices, dates and a search's answer as the
admin says them."""

from django import template

from lps_site import admin_formatting

register = template.Library()
register.filter("won", admin_formatting.won)
register.filter("when", admin_formatting.when)
register.filter("answer", admin_formatting.answer_text)
