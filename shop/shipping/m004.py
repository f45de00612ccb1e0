import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_4_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-4-0'
    return [line.qty * factor for line in cart.lines]


def step_4_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-4-1'
    return [line.qty * factor for line in cart.lines]


def step_4_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-4-2'
    return [line.qty * factor for line in cart.lines]


def step_4_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-4-3'
    return [line.qty * factor for line in cart.lines]

