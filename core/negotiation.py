"""DRF content negotiation with the common case answered first: a client that accepts anything
(no Accept header, or `*/*`, as OTLP exporters and most API clients send) gets the first
renderer, as DRF's negotiation would give it, without parsing the header each request."""

from rest_framework.negotiation import DefaultContentNegotiation


class AnythingFirstContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        if (
            request.META.get("HTTP_ACCEPT", "*/*") == "*/*"
            and not format_suffix
            and renderers
            # DRF answers `*/*` with the renderer's own type only when that names no wildcard.
            and "*" not in renderers[0].media_type
            # A request without a query string has no format override; its QueryDict is not built.
            and (
                not request.META.get("QUERY_STRING")
                or self.settings.URL_FORMAT_OVERRIDE not in request.query_params
            )
        ):
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)
