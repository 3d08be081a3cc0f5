"""value_first_level: what a span row shows of a value before it is opened."""

from traces.first_level import ENTRY_CHARS, FIRST_LEVEL_ENTRIES, TEXT_CHARS, value_first_level


def test_an_object_shows_its_first_keys_cut_short_and_counts_the_rest():
    value = {f"key{i}": "v" * 500 for i in range(FIRST_LEVEL_ENTRIES + 3)}
    first = value_first_level(value)
    assert [key for key, _ in first.entries] == [f"key{i}" for i in range(FIRST_LEVEL_ENTRIES)]
    assert all(len(text) == ENTRY_CHARS and text.endswith("…") for _, text in first.entries)
    assert first.more == 3 and first.cut


def test_nested_values_are_summarised_not_expanded():
    first = value_first_level(
        {"rows": list(range(100)), "meta": {"a": 1}, "deep": {"a": 1, "b": 2, "c": 3, "d": 4}}
    )
    assert dict(first.entries) == {"rows": "[100 items]", "meta": '{"a": 1}', "deep": "{4 keys}"}


def test_a_conversation_shows_its_last_turns_as_role_and_text():
    turns = [{"role": "system", "content": "Be brief."}] + [
        {"role": "user", "content": f"question {i}"} for i in range(6)
    ]
    first = value_first_level(turns)
    assert first.entries[-1] == ("6", "user: question 5")
    assert first.more == len(turns) - FIRST_LEVEL_ENTRIES and first.more_are_earlier
    assert "system: Be brief." not in dict(first.entries).values()


def test_text_shows_its_opening_with_whitespace_folded_and_empty_values_nothing():
    first = value_first_level("line one\n\n   line two " + "x" * 1000)
    assert first.entries[0][0] is None and first.entries[0][1].startswith("line one line two")
    assert len(first.entries[0][1]) == TEXT_CHARS and first.cut
    assert value_first_level(None).is_empty and value_first_level({}).is_empty
    assert value_first_level(42).entries == ((None, "42"),)


def test_a_model_call_reads_as_its_last_turns_with_tool_calls_by_name():
    from traces.first_level import messages_first_level

    given = {
        "messages": [
            {"role": "system", "content": "You book travel."},
            {"role": "user", "content": "Porto, 3 nights"},
            {"role": "tool", "tool_call_id": "c1", "content": '{"hotels": 2}'},
        ]
    }
    answer = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c2", "function": {"name": "book", "arguments": '{"hotel": "Ribeira"}'}}
        ],
    }

    assert messages_first_level(given).entries == (
        ("system", "You book travel."),
        ("user", "Porto, 3 nights"),
        ("tool", "← result: hotels: 2"),
    )
    assert messages_first_level(answer).entries == (("assistant", "→ book(hotel: Ribeira)"),)
    assert messages_first_level({"city": "Porto"}) is None
