import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_90_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-90-0'
    return [line.qty * factor for line in cart.lines]


def step_90_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-90-1'
    return [line.qty * factor for line in cart.lines]


def step_90_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-90-2'
    return [line.qty * factor for line in cart.lines]


def step_90_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-90-3'
    return [line.qty * factor for line in cart.lines]

