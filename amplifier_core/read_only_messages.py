"""Read-only messages: a context manager validates and freezes each message once, when it joins the history,
and every later request shares those objects instead of copying and re-validating the whole history.

Sharing is safe because nothing shared can be changed: ``ReadOnlyDict``/``ReadOnlyList`` are real ``dict``/
``list`` subclasses (``isinstance``, ``json.dumps`` and pydantic accept them) whose mutating methods raise
``TypeError``, and the ``Message`` models built by :func:`read_only_model` refuse attribute assignment and hold
only read-only containers. Copies (``copy.copy``, ``copy.deepcopy``, ``dict(m)``, ``model_copy()``) are plain,
mutable objects, so a module that wants to change what it received copies it first.
"""

from __future__ import annotations

from typing import Any, NoReturn

from pydantic import BaseModel

from .message_models import Message

__all__ = [
    "ReadOnlyDict", "ReadOnlyList", "RequestMessages", "freeze", "read_only_json_object", "read_only_model",
    "request_models", "thaw",
]

_HINT = "stored messages are shared read-only; copy first (dict(m), copy.deepcopy(m) or model.model_copy())"


def _refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(f"cannot change a {type(self).__name__}: {_HINT}")


class ReadOnlyDict(dict):
    """A ``dict`` that refuses every change. Build deep read-only values with :func:`freeze`."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return thaw(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReadOnlyDict, (dict(self),))


class ReadOnlyList(list):
    """A ``list`` that refuses every change. Build deep read-only values with :func:`freeze`."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = clear = extend = insert = pop = remove = \
        reverse = sort = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thaw(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (ReadOnlyList, (list(self),))


_SCALARS = frozenset({str, int, float, bool, type(None)})


def freeze(value: Any) -> Any:
    """``value`` with every dict and list rebuilt read-only (JSON-shaped data; read-only parts are reused).
    Other objects are kept as they are, as a copy of the message would have kept them."""
    kind = type(value)
    if kind in _SCALARS or kind is ReadOnlyDict or kind is ReadOnlyList:
        return value
    if isinstance(value, dict):
        return ReadOnlyDict({key: item if type(item) in _SCALARS else freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return ReadOnlyList([item if type(item) in _SCALARS else freeze(item) for item in value])
    return value


def _read_only_list(items: list[Any]) -> ReadOnlyList:
    return ReadOnlyList([_read_only_list(item) if type(item) is list else item for item in items])


def read_only_json_object(pairs: list[tuple[str, Any]]) -> ReadOnlyDict:
    """``object_pairs_hook`` for ``json.loads`` that builds read-only messages while parsing (inner objects
    arrive read-only already; their lists are converted here), cheaper than parsing then :func:`freeze`."""
    return ReadOnlyDict([(key, _read_only_list(value) if type(value) is list else value) for key, value in pairs])


def thaw(value: Any) -> Any:
    """A mutable deep copy of ``value``: dicts and lists rebuilt, read-only models turned into plain ones."""
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thaw(item) for item in value]
    if isinstance(value, BaseModel) and type(value) in _PLAIN_CLASS:
        return _plain_model(value)
    return value


# -- read-only pydantic models ------------------------------------------------------------------------------
_READ_ONLY_CLASS: dict[type[BaseModel], type[BaseModel]] = {}
_PLAIN_CLASS: dict[type[BaseModel], type[BaseModel]] = {}


def _refuse_attribute(self: Any, name: str, value: Any = None) -> NoReturn:
    raise TypeError(f"cannot set {name!r} on a read-only {type(self).__name__}: {_HINT}")


def _read_only_eq(self: BaseModel, other: Any) -> bool:
    """Equal to a plain model of the same class with the same values (pydantic compares exact classes)."""
    if not isinstance(other, BaseModel):
        return NotImplemented
    if _PLAIN_CLASS.get(type(self), type(self)) is not _PLAIN_CLASS.get(type(other), type(other)):
        return False
    return self.__dict__ == other.__dict__ and self.__pydantic_extra__ == other.__pydantic_extra__


def _plain_copy(self: BaseModel, memo: dict[int, Any] | None = None) -> BaseModel:
    return _plain_model(self)


def _read_only_class(cls: type[BaseModel]) -> type[BaseModel]:
    """A subclass of ``cls`` with the same name and fields that refuses assignment (cached per class)."""
    found = _READ_ONLY_CLASS.get(cls)
    if found is None:
        namespace = {
            "__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__,
            "__doc__": cls.__doc__, "__setattr__": _refuse_attribute, "__delattr__": _refuse_attribute,
            "__eq__": _read_only_eq, "__hash__": None, "__copy__": _plain_copy, "__deepcopy__": _plain_copy,
        }
        metaclass: Any = type(cls)  # pydantic's model metaclass builds the subclass (fields and all)
        found = metaclass(cls.__name__, (cls,), namespace)
        _READ_ONLY_CLASS[cls] = found
        _PLAIN_CLASS[found] = cls
    return found


def _plain_model(model: BaseModel) -> BaseModel:
    """A mutable copy of a read-only model, of the original (plain) class."""
    plain = _PLAIN_CLASS[type(model)]
    copied = plain.__new__(plain)
    extra = model.__pydantic_extra__
    object.__setattr__(copied, "__dict__", {key: thaw(item) for key, item in model.__dict__.items()})
    object.__setattr__(copied, "__pydantic_extra__", thaw(extra) if extra is not None else None)
    object.__setattr__(copied, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    object.__setattr__(copied, "__pydantic_private__", model.__pydantic_private__)
    return copied


def _seal(value: Any) -> Any:
    """Make ``value`` read-only in place (models: class swapped, containers replaced); returns it."""
    kind = type(value)
    if kind in _SCALARS or kind is ReadOnlyDict or kind is ReadOnlyList:
        return value
    if isinstance(value, BaseModel):
        if kind not in _PLAIN_CLASS:
            fields = value.__dict__
            for key, item in fields.items():
                if type(item) not in _SCALARS:
                    fields[key] = _seal(item)
            extra = value.__pydantic_extra__
            if extra:
                object.__setattr__(value, "__pydantic_extra__", ReadOnlyDict({k: _seal(v) for k, v in extra.items()}))
            object.__setattr__(value, "__class__", _READ_ONLY_CLASS.get(kind) or _read_only_class(kind))
        return value
    if isinstance(value, dict):
        return ReadOnlyDict({key: _seal(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return ReadOnlyList([_seal(item) for item in value])
    return value


def read_only_model(message: Any) -> Message:
    """``message`` (a dict, ideally already :func:`freeze`-d) validated into a ``Message`` that refuses every
    change, so one model can be shared by every request. Raises pydantic's ValidationError like
    ``Message.model_validate``."""
    model = message if isinstance(message, Message) else Message.model_validate(message)
    if type(model) in _PLAIN_CLASS:
        return model
    if model is message:
        model = model.model_copy(deep=True)  # never seal the caller's own object
    return _seal(model)


# -- the messages of one request ----------------------------------------------------------------------------
class RequestMessages(list):
    """The message dicts of one request together with their ready ``Message`` models, so an orchestrator builds
    a ``ChatRequest`` without validating the history again. The list is the caller's own (change it freely;
    the models are then rebuilt from what it holds); the messages in it are the context's read-only ones."""

    __slots__ = ("_models", "_pristine")

    def __init__(self, messages: Any = (), models: list[Message] | None = None) -> None:
        super().__init__(messages)
        self._models = models
        self._pristine = True

    def _changed(method: Any) -> Any:
        def changing(self: RequestMessages, *args: Any, **kwargs: Any) -> Any:
            self._pristine = False
            return method(self, *args, **kwargs)

        changing.__name__ = method.__name__
        return changing

    __setitem__ = _changed(list.__setitem__)
    __delitem__ = _changed(list.__delitem__)
    __iadd__ = _changed(list.__iadd__)
    __imul__ = _changed(list.__imul__)
    append = _changed(list.append)
    extend = _changed(list.extend)
    insert = _changed(list.insert)
    pop = _changed(list.pop)
    remove = _changed(list.remove)
    clear = _changed(list.clear)
    sort = _changed(list.sort)
    reverse = _changed(list.reverse)
    del _changed

    def models(self) -> list[Message] | None:
        """The ready models, handed over once (the caller owns the list: no copy per request); None when
        there are none, the list was changed, or they were handed over already."""
        models, self._models = self._models, None
        if models is None or not self._pristine or len(models) != len(self):
            return None
        return models


def request_models(messages: Any) -> list[Message]:
    """``Message`` models for a request: the ready ones of a :class:`RequestMessages`, else each message
    validated (read-only models are reused as they are)."""
    if isinstance(messages, RequestMessages):
        ready = messages.models()
        if ready is not None:
            return ready
    return [message if isinstance(message, Message) else Message.model_validate(message) for message in messages]
