"""copy.copy of a model instance, without the pickle protocol copy.copy goes through for models
(the model looked up in the app registry by name, the instance rebuilt from its reduced form):
for the copies made on every API request (the token's user, a remembered project)."""

import django
from django.db.models.base import DJANGO_VERSION_PICKLE_KEY


def model_copy(instance):
    """What copy.copy(instance) returns: a new instance with the same field values and its own
    copy of the related-object cache."""
    state = instance.__getstate__()
    state[DJANGO_VERSION_PICKLE_KEY] = django.__version__
    clone = instance.__class__.__new__(instance.__class__)
    clone.__setstate__(state)
    return clone
