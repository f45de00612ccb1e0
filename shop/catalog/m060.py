import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_60_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-60-0'
    return [line.qty * factor for line in cart.lines]


def step_60_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-60-1'
    return [line.qty * factor for line in cart.lines]


def step_60_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-60-2'
    return [line.qty * factor for line in cart.lines]


def step_60_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-60-3'
    return [line.qty * factor for line in cart.lines]

