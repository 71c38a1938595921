"""Runs one scripted run through a loop and keeps everything the outside world can see of it."""

from scripted import build


def observe(loop_function, seed):
    """Everything observable of one run of ``loop_function`` on ``build(seed)``'s inputs: each
    event as it was yielded, what each request carried then and the final list, the schemas
    given, the tools' calls, and an exception that escaped (its type and text). Also returns
    the loop and the events themselves."""
    arguments, consumer = build(seed)
    chat, tools = arguments["chat"], arguments["tools"]
    try:
        loop = loop_function(chat, tools, arguments["task"], max_turns=arguments["max_turns"],
                             system=arguments["system"])
    except Exception as exc:  # a loop that refuses at the call, not at the first next()
        return {"raised_at_call": (type(exc).__name__, str(exc))}, None, []
    raw = []
    events, escaped = consume(loop, consumer, raw)
    seen = {
        "events": events,
        "escaped": escaped,
        "requests": chat.requests,
        "final_messages": repr(chat.lists[-1]) if chat.lists else None,
        "one_list": all(given is chat.lists[0] for given in chat.lists),
        "schemas_given": [repr(schemas) for schemas in chat.schemas],
        "tool_calls": tools.calls,
    }
    return seen, loop, raw


def consume(loop, consumer, raw):
    events = []
    try:
        event = next(loop)
        while True:
            raw.append(event)
            events.append(repr(event))
            if consumer is not None and len(events) == consumer.at:
                if consumer.kind == "close":
                    loop.close()
                    events.append("closed by the consumer")
                    return events, None
                event = loop.throw(RuntimeError("the consumer gave up"))
            else:
                event = next(loop)
    except StopIteration:
        return events, None
    except Exception as exc:
        return events, (type(exc).__name__, str(exc))
