import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_53_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-53-0'
    return [line.qty * factor for line in cart.lines]


def step_53_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-53-1'
    return [line.qty * factor for line in cart.lines]


def step_53_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-53-2'
    return [line.qty * factor for line in cart.lines]


def step_53_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-53-3'
    return [line.qty * factor for line in cart.lines]

