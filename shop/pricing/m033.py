import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_33_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-33-0'
    return [line.qty * factor for line in cart.lines]


def step_33_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-33-1'
    return [line.qty * factor for line in cart.lines]


def step_33_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-33-2'
    return [line.qty * factor for line in cart.lines]


def step_33_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-33-3'
    return [line.qty * factor for line in cart.lines]

