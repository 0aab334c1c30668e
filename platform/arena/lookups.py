"""A lookup the ORM lacks: ``field__any_of=[...]``, for long lists of values."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, ForeignObject, Lookup
from django.db.models.sql.compiler import SQLCompiler


class AnyOf(Lookup[Any]):
    """The field equals one of the values. On PostgreSQL one array parameter
    (``= ANY(%s)``), elsewhere ``IN``: with ``IN`` every value is a parameter of its
    own, and a list of thousands (the private versions a visitor may not see, a bot's
    last thousand matches) cost more to send than the query took to run."""

    lookup_name = "any_of"
    prepare_rhs = False

    def get_prep_lookup(self) -> list[Any]:
        field = self.lhs.output_field
        return [field.get_prep_value(value) for value in self.rhs]

    def as_sql(
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper
    ) -> tuple[str, tuple[Any, ...]]:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        values = list(self.rhs)
        if not values:
            raise EmptyResultSet
        if connection.vendor == "postgresql":
            return f"{lhs} = ANY(%s)", (*lhs_params, values)
        return f"{lhs} IN ({', '.join(['%s'] * len(values))})", (*lhs_params, *values)


Field.register_lookup(AnyOf)
ForeignObject.register_lookup(AnyOf)  # relations keep lookups of their own
