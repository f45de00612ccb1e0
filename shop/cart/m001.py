import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_1_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-1-0'
    return [line.qty * factor for line in cart.lines]


def step_1_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-1-1'
    return [line.qty * factor for line in cart.lines]


def step_1_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-1-2'
    return [line.qty * factor for line in cart.lines]


def step_1_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-1-3'
    return [line.qty * factor for line in cart.lines]

