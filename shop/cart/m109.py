import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_109_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-109-0'
    return [line.qty * factor for line in cart.lines]


def step_109_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-109-1'
    return [line.qty * factor for line in cart.lines]


def step_109_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-109-2'
    return [line.qty * factor for line in cart.lines]


def step_109_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-109-3'
    return [line.qty * factor for line in cart.lines]

