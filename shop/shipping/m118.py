import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_118_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-118-0'
    return [line.qty * factor for line in cart.lines]


def step_118_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-118-1'
    return [line.qty * factor for line in cart.lines]


def step_118_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-118-2'
    return [line.qty * factor for line in cart.lines]


def step_118_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-118-3'
    return [line.qty * factor for line in cart.lines]

