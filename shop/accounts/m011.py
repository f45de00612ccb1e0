import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_11_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-11-0'
    return [line.qty * factor for line in cart.lines]


def step_11_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-11-1'
    return [line.qty * factor for line in cart.lines]


def step_11_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-11-2'
    return [line.qty * factor for line in cart.lines]


def step_11_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-11-3'
    return [line.qty * factor for line in cart.lines]

