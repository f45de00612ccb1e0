import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_57_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-57-0'
    return [line.qty * factor for line in cart.lines]


def step_57_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-57-1'
    return [line.qty * factor for line in cart.lines]


def step_57_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-57-2'
    return [line.qty * factor for line in cart.lines]


def step_57_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-57-3'
    return [line.qty * factor for line in cart.lines]

