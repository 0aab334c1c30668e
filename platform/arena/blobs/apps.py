from django.apps import AppConfig


class BlobsConfig(AppConfig):
    name = "arena.blobs"
    label = "blobs"
    verbose_name = "Stored files"
