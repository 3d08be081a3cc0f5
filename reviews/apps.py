from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"

    def ready(self):
        from reviews import (
            calibration_receivers,  # noqa: F401  (judge calibration samples)
            receivers,  # noqa: F401  (connects the judges -> reviews hand-off)
        )
