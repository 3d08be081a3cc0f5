"""Embedded mode's filesystem broker under a writer and a reader racing on one folder."""

import os
import threading

import pytest
from kombu import Connection
from kombu.transport import filesystem

from evalsite.broker import Transport

MESSAGES = 300


def _race(transport_cls, folder) -> tuple[list, list]:
    """One thread puts MESSAGES messages while another takes them as fast as it can."""
    options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "processed_folder": str(folder / "processed"),
    }
    (folder / "processed").mkdir()
    received, errors = [], []
    done = threading.Event()

    def reader():
        with Connection(transport=transport_cls, transport_options=options) as conn:
            channel = conn.default_channel
            while len(received) < MESSAGES and not done.is_set():
                try:
                    received.append(channel._get("q"))
                except filesystem.Empty:
                    continue
                except Exception as exc:  # noqa: BLE001 - the race surfaces as a decode error
                    errors.append(exc)

    thread = threading.Thread(target=reader)
    thread.start()
    with Connection(transport=transport_cls, transport_options=options) as conn:
        channel = conn.default_channel
        for n in range(MESSAGES):
            channel._put("q", {"n": n, "body": "x" * 2000})
    thread.join(timeout=60)
    done.set()
    thread.join(timeout=5)
    return received, errors


def test_a_worker_never_reads_a_message_before_it_is_written(tmp_path):
    received, errors = _race(Transport, tmp_path)
    assert errors == []
    assert sorted(message["n"] for message in received) == list(range(MESSAGES))


def test_a_message_file_appears_only_once_it_is_complete(tmp_path, monkeypatch):
    # given a reader on the same folder
    options = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path)}
    seen_while_writing = []
    with Connection(transport=Transport, transport_options=options) as conn:
        reader = Connection(transport=Transport, transport_options=options).default_channel
        rename = os.replace

        def replace_after_a_look(source, target):
            # the moment before the message is put in place: the folder holds it whole, unseen
            with open(source, "rb") as partial:
                seen_while_writing.append(len(partial.read()))
            with pytest.raises(filesystem.Empty):
                reader._get("q")
            rename(source, target)

        monkeypatch.setattr("evalsite.broker.os.replace", replace_after_a_look)
        # when a message is put
        conn.default_channel._put("q", {"body": "x" * 5000})
    # then it was complete before it could be seen, and a reader takes it whole
    assert seen_while_writing and seen_while_writing[0] > 5000
    assert reader._get("q") == {"body": "x" * 5000}
