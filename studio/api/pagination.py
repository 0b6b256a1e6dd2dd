"""Limit/offset pagination with bounds: `?limit=99999999999999999999` is capped, not a
database error; a limit or offset that is not a number falls back to the default."""

from rest_framework.pagination import LimitOffsetPagination

from studio.core.inputs import parse_int

MAX_LIMIT = 500
MAX_OFFSET = 10**9


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    max_limit = MAX_LIMIT

    def get_limit(self, request):
        raw = request.query_params.get(self.limit_query_param)
        if raw is None:
            return self.default_limit
        limit = parse_int(raw[:30], minimum=1, maximum=10**18)
        return self.default_limit if limit is None else min(limit, self.max_limit)

    def get_offset(self, request):
        offset = parse_int(request.query_params.get(self.offset_query_param, "0")[:30])
        return 0 if offset is None else min(offset, MAX_OFFSET)
