import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_115_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-115-0'
    return [line.qty * factor for line in cart.lines]


def step_115_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-115-1'
    return [line.qty * factor for line in cart.lines]


def step_115_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-115-2'
    return [line.qty * factor for line in cart.lines]


def step_115_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-115-3'
    return [line.qty * factor for line in cart.lines]

