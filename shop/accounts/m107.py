import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_107_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-107-0'
    return [line.qty * factor for line in cart.lines]


def step_107_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-107-1'
    return [line.qty * factor for line in cart.lines]


def step_107_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-107-2'
    return [line.qty * factor for line in cart.lines]


def step_107_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-107-3'
    return [line.qty * factor for line in cart.lines]

