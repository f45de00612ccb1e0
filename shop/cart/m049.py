import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_49_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-49-0'
    return [line.qty * factor for line in cart.lines]


def step_49_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-49-1'
    return [line.qty * factor for line in cart.lines]


def step_49_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-49-2'
    return [line.qty * factor for line in cart.lines]


def step_49_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-49-3'
    return [line.qty * factor for line in cart.lines]

