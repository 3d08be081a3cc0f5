"""Embedded mode's broker: kombu's filesystem transport, each message file complete when it
appears.

kombu creates a message file and then writes it, so a worker listing the folder in between
takes an empty file and dies decoding it, and the message is lost (celery/kombu#1551). Here a
message is written under a name no worker reads and renamed into place, which is atomic.
"""

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

# Workers read only `<stamp>_<uuid>.<queue>.msg`; a partial file's name never looks like that.
PARTIAL_PREFIX = ".partial-"


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        partial = os.path.join(self.data_folder_out, f"{PARTIAL_PREFIX}{uuid.uuid4()}")
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(self.data_folder_out, name))
        except OSError as exc:
            raise ChannelError(f"Cannot add message {name!r} to the queue folder") from exc


class Transport(filesystem.Transport):
    Channel = Channel
