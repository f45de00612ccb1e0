import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_119_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-119-0'
    return [line.qty * factor for line in cart.lines]


def step_119_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-119-1'
    return [line.qty * factor for line in cart.lines]


def step_119_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-119-2'
    return [line.qty * factor for line in cart.lines]


def step_119_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-119-3'
    return [line.qty * factor for line in cart.lines]

