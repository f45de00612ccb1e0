import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_26_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-26-0'
    return [line.qty * factor for line in cart.lines]


def step_26_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-26-1'
    return [line.qty * factor for line in cart.lines]


def step_26_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-26-2'
    return [line.qty * factor for line in cart.lines]


def step_26_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-26-3'
    return [line.qty * factor for line in cart.lines]

