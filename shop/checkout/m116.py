import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_116_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-116-0'
    return [line.qty * factor for line in cart.lines]


def step_116_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-116-1'
    return [line.qty * factor for line in cart.lines]


def step_116_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-116-2'
    return [line.qty * factor for line in cart.lines]


def step_116_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-116-3'
    return [line.qty * factor for line in cart.lines]

