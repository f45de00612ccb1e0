import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_34_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-34-0'
    return [line.qty * factor for line in cart.lines]


def step_34_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-34-1'
    return [line.qty * factor for line in cart.lines]


def step_34_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-34-2'
    return [line.qty * factor for line in cart.lines]


def step_34_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-34-3'
    return [line.qty * factor for line in cart.lines]

