from dataclasses import dataclass, field


@dataclass
class Line:
    sku: str
    qty: int
    unit_cents: int


@dataclass
class Cart:
    owner: str
    lines: list[Line] = field(default_factory=list)
    _version: int = 0


def add_line(cart: Cart, sku: str, qty: int, unit_cents: int = 0) -> Cart:
    cart.lines.append(Line(sku, qty, unit_cents))
    cart._version += 1
    return cart


def subtotal(cart: Cart) -> int:
    return sum(line.qty * line.unit_cents for line in cart.lines)
