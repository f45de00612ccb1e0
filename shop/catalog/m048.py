import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_48_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-48-0'
    return [line.qty * factor for line in cart.lines]


def step_48_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-48-1'
    return [line.qty * factor for line in cart.lines]


def step_48_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-48-2'
    return [line.qty * factor for line in cart.lines]


def step_48_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-48-3'
    return [line.qty * factor for line in cart.lines]

