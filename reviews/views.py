from django.db.models import Count, Q
from django.shortcuts import render

from reviews.models import Queue, ReviewStatus


def queue_list(request):
    queues = Queue.objects.annotate(
        open_count=Count("items", filter=Q(items__status=ReviewStatus.OPEN))
    ).order_by("-priority", "name")
    return render(request, "reviews/queue_list.html", {"queues": queues})
