import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_83_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-83-0'
    return [line.qty * factor for line in cart.lines]


def step_83_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-83-1'
    return [line.qty * factor for line in cart.lines]


def step_83_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-83-2'
    return [line.qty * factor for line in cart.lines]


def step_83_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-83-3'
    return [line.qty * factor for line in cart.lines]

