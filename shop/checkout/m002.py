import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_2_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-2-0'
    return [line.qty * factor for line in cart.lines]


def step_2_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-2-1'
    return [line.qty * factor for line in cart.lines]


def step_2_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-2-2'
    return [line.qty * factor for line in cart.lines]


def step_2_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-2-3'
    return [line.qty * factor for line in cart.lines]

