import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_61_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-61-0'
    return [line.qty * factor for line in cart.lines]


def step_61_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-61-1'
    return [line.qty * factor for line in cart.lines]


def step_61_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-61-2'
    return [line.qty * factor for line in cart.lines]


def step_61_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-61-3'
    return [line.qty * factor for line in cart.lines]

