import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_6_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-6-0'
    return [line.qty * factor for line in cart.lines]


def step_6_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-6-1'
    return [line.qty * factor for line in cart.lines]


def step_6_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-6-2'
    return [line.qty * factor for line in cart.lines]


def step_6_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-6-3'
    return [line.qty * factor for line in cart.lines]

