import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_15_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-15-0'
    return [line.qty * factor for line in cart.lines]


def step_15_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-15-1'
    return [line.qty * factor for line in cart.lines]


def step_15_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-15-2'
    return [line.qty * factor for line in cart.lines]


def step_15_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-15-3'
    return [line.qty * factor for line in cart.lines]

