import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_111_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-111-0'
    return [line.qty * factor for line in cart.lines]


def step_111_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-111-1'
    return [line.qty * factor for line in cart.lines]


def step_111_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-111-2'
    return [line.qty * factor for line in cart.lines]


def step_111_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-111-3'
    return [line.qty * factor for line in cart.lines]

