import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_62_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-62-0'
    return [line.qty * factor for line in cart.lines]


def step_62_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-62-1'
    return [line.qty * factor for line in cart.lines]


def step_62_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-62-2'
    return [line.qty * factor for line in cart.lines]


def step_62_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-62-3'
    return [line.qty * factor for line in cart.lines]

