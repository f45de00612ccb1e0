import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_117_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-117-0'
    return [line.qty * factor for line in cart.lines]


def step_117_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-117-1'
    return [line.qty * factor for line in cart.lines]


def step_117_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-117-2'
    return [line.qty * factor for line in cart.lines]


def step_117_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-117-3'
    return [line.qty * factor for line in cart.lines]

