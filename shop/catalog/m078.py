import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_78_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-78-0'
    return [line.qty * factor for line in cart.lines]


def step_78_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-78-1'
    return [line.qty * factor for line in cart.lines]


def step_78_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-78-2'
    return [line.qty * factor for line in cart.lines]


def step_78_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-78-3'
    return [line.qty * factor for line in cart.lines]

