import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_54_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-54-0'
    return [line.qty * factor for line in cart.lines]


def step_54_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-54-1'
    return [line.qty * factor for line in cart.lines]


def step_54_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-54-2'
    return [line.qty * factor for line in cart.lines]


def step_54_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-54-3'
    return [line.qty * factor for line in cart.lines]

