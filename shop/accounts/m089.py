import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_89_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-89-0'
    return [line.qty * factor for line in cart.lines]


def step_89_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-89-1'
    return [line.qty * factor for line in cart.lines]


def step_89_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-89-2'
    return [line.qty * factor for line in cart.lines]


def step_89_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-89-3'
    return [line.qty * factor for line in cart.lines]

