import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_55_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-55-0'
    return [line.qty * factor for line in cart.lines]


def step_55_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-55-1'
    return [line.qty * factor for line in cart.lines]


def step_55_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-55-2'
    return [line.qty * factor for line in cart.lines]


def step_55_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-55-3'
    return [line.qty * factor for line in cart.lines]

