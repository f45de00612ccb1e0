import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_12_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-12-0'
    return [line.qty * factor for line in cart.lines]


def step_12_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-12-1'
    return [line.qty * factor for line in cart.lines]


def step_12_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-12-2'
    return [line.qty * factor for line in cart.lines]


def step_12_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-12-3'
    return [line.qty * factor for line in cart.lines]

