"""Files kept in the database (the default storage), and the platform's storage identity.

This app sits below every other one (``blobs ← players ← bots ← ...``) and
imports none of them: the others reach it only through Django's
``default_storage``.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Blob(models.Model):
    """One stored file of :class:`arena.blobs.storage.DatabaseStorage`: bot code or a match log.

    Written once and never changed (the platform's files are content-addressed
    code and finished logs), so the creation time is also the modification time.
    """

    name = models.CharField(max_length=255, unique=True)
    content = models.BinaryField()
    size = models.PositiveBigIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.name} ({self.size} bytes)"


class StorageIdentity(models.Model):
    """The storage every host of the platform must share, recorded once (one row).

    The first host that checks its storage (``arena.blobs.storage_check``) draws a
    random token, writes it to its storage as a marker object and here; a
    host whose storage lacks that marker is on another disk or bucket.
    """

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    token = models.CharField(max_length=64)
    # Who recorded it and with which storage: the refusal of another host names them.
    storage = models.CharField(max_length=500)
    host = models.CharField(max_length=255)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "storage identity"
        constraints = (
            models.CheckConstraint(condition=models.Q(id=1), name="storage_identity_single_row"),
        )

    def __str__(self) -> str:
        return f"{self.storage} (recorded by {self.host})"
