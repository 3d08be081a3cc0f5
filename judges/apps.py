from django.apps import AppConfig


class JudgesConfig(AppConfig):
    name = "judges"
