"""The API's JSON parser: request bodies are bounded in depth, hold no NUL characters and only
finite numbers of sane size (a 10,000-deep array or a 5,000-digit integer is a 400 with a
message, never a RecursionError)."""

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from studio.core.inputs import MAX_JSON_BYTES, JsonInvalid, loads_json


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read(MAX_JSON_BYTES + 1) if stream is not None else b""
        if len(raw) > MAX_JSON_BYTES:
            raise ParseError(f"JSON body larger than {MAX_JSON_BYTES // 1024} KiB")
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = raw.decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError("JSON body is not valid text") from exc
        if not text.strip():
            return {}
        try:
            # NUL characters pass here: the serializer's fields answer with a field error.
            return loads_json(text, allow_nul=True)
        except JsonInvalid as exc:
            raise ParseError(f"JSON parse error: {exc}") from exc
