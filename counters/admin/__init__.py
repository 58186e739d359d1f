"""Counters and polls on the admin site, through custom pages (they live in DynamoDB, not the ORM)."""

from django.contrib import admin

from counters.admin.counter_admin import CounterAdmin
from counters.admin.poll_admin import PollAdmin
from counters.models import Counter, Poll

admin.site.register(Counter, CounterAdmin)
admin.site.register(Poll, PollAdmin)
